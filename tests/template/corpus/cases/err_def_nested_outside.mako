<%def name="outer()"><%def name="inner()">in</%def></%def>${inner()}
