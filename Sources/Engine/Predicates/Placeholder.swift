import Model
import SQLite
public enum PredicatesModule {}
