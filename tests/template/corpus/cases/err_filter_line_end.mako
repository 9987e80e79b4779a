${n | h,
 trim}
