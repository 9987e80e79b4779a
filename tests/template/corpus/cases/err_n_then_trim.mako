${5 | n, trim}
