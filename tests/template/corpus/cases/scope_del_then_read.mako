<% del n %>${n}
