print("autofill-vault: not yet")
