print("autofill-bench: placeholder")
