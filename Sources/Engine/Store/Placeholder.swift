import Model
public enum StoreModule {}
