<%def name="g()">G</%def>[${g()}]
