<%block>${n}<% del n %></%block>
