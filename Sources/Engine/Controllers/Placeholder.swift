import Model
public enum ControllersModule {}
