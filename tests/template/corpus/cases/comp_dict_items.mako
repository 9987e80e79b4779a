${[k + "=" + str(v) for k, v in mapping.items()]}
