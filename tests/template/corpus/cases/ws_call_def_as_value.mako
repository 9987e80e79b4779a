<%def name="t()">T</%def>
${t() + t()} ${len(t())}
