print("multitouchd: not yet")
