## A def of the top level does not see its names when called through self.
<% x = 1 %><%def name="f()">${x}</%def>${self.f()}
