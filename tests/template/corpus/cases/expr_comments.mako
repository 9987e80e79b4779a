## A comment in ${...} runs to its line end, which it takes with it (a } after it closes nothing)
${n # four
}${[1, # one
2] | h # a filter bar in a comment | x
} ${"#"} ${ {"a#": 1}["a#"] }
% if n:  # a comment on a control line
yes
% endif
