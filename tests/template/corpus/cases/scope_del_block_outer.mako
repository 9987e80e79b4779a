<% w = 2 %><%block>${names}<% del w %>x</%block>
