print("multitouchctl: not yet")
