${context['no_such_name']}
