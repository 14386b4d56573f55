public enum ServerModule {}
