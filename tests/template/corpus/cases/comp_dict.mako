${ {nm: i for i, nm in enumerate(names)} }
