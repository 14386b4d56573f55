import Model
public enum ContextsModule {}
