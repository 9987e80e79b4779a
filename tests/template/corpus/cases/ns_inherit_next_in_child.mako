<%inherit file="base.mako"/>
<%def name="body_text()">${caller_free()}</%def>
<%def name="caller_free()">free</%def>
${next.body() if False else 'no next here'}
