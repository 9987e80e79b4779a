[${"  padded  " | trim}]
