${names[10]}
