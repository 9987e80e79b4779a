${len(text)} ${text[1]} ${text[::-1]} ${text.upper()}
