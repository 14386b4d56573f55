import JSON
public enum JSONRPCModule {}
