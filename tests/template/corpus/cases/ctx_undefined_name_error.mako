${no_such_name}
