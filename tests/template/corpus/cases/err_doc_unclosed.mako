<%doc>x
