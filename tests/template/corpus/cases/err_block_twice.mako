<%def name="b()">x</%def><%block name="b">y</%block>
