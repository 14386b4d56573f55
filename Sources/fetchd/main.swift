print("fetchd")
