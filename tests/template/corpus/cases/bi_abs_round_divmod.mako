${abs(-3)} ${abs(-2.5)} ${round(2.5)} ${round(3.5)} ${round(2.675, 2)} ${divmod(17, 5)} ${divmod(-7, 2)} ${pow(2, 10)} ${pow(3, 4, 5)}
