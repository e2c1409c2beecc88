/* From libuv test/test-udp-mmsg.c (MIT licence): one TEST_IMPL test. */
TEST_IMPL(udp_mmsg_small_buf) {
  struct sockaddr_in addr;
  uv_loop_t* loop;
  uv_buf_t buf;

  loop = uv_default_loop();
  ASSERT_OK(uv_udp_init_ex(loop, &recver, AF_UNSPEC | UV_UDP_RECVMMSG));
  if (uv_udp_using_recvmmsg(&recver)) {
    ASSERT_OK(uv_ip4_addr("0.0.0.0", TEST_PORT, &addr));
    ASSERT_OK(uv_udp_bind(&recver, (const struct sockaddr*) &addr, 0));
    ASSERT_OK(uv_udp_recv_start(&recver, small_alloc_cb, small_recv_cb));
    ASSERT_OK(uv_ip4_addr("127.0.0.1", TEST_PORT, &addr));
    ASSERT_OK(uv_udp_init(loop, &sender));
    buf = uv_buf_init("PING", 4);
    ASSERT_EQ(4, uv_udp_try_send(&sender, &buf, 1, (const struct sockaddr*) &addr));
    ASSERT_OK(uv_run(loop, UV_RUN_DEFAULT));
    ASSERT_EQ(1, recv_cb_called);
    ASSERT_EQ(2, close_cb_called);
  } else {
    uv_close((uv_handle_t*) &recver, close_cb);
    ASSERT_OK(uv_run(loop, UV_RUN_DEFAULT));
    ASSERT_EQ(1, close_cb_called);
  }
  MAKE_VALGRIND_HAPPY(loop);
  return 0;
}
