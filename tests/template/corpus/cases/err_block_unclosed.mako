<%block name="b">x</%def>
