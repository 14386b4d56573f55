public enum JSONModule {}
