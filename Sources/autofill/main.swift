print("autofill")
