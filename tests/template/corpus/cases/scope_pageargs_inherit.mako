## pageargs: the render globals for the template rendered, none for the body next.body() renders.
<%inherit file="base.mako"/>\
<%def name="body_text()">text</%def>\
${len(pageargs)}
