${[nm for nm in names if nm != "y"]}
