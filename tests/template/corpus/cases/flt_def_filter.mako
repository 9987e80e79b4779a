<%def name="f()" filter="trim">
   body
</%def>[${f()}]
