## A def is a function of its own: a loop around it does not take its break.
% for i in range(2):
<%def name="f()"><% break %></%def>
% endfor
