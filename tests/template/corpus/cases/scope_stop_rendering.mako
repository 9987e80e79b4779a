before <% return STOP_RENDERING %> after
