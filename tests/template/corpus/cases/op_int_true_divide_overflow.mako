## The halfway point between the largest float and 2^1024 rounds (half to even) to 2^1024: an
## OverflowError in Python, refused by kjarni.
${(2 ** 1024 - 2 ** 970) / 1}
