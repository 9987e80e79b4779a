${"  <b>  " | trim, h}
