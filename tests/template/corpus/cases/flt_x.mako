${"<tag attr='v'>" | x}
