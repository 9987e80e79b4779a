${n # the } is in the comment}
