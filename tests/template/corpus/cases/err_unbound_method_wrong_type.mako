${str.lower(5)}
