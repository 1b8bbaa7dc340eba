enum state { IDLE, CONNECTING, READY, CLOSED };
enum event { EV_CONNECT, EV_OK, EV_CLOSE };

int next_state(int s, int ev) {
    switch (s) {
    case IDLE:
        return ev == EV_CONNECT ? CONNECTING : IDLE;
    case CONNECTING:
        if (ev == EV_OK) return READY;
        if (ev == EV_CLOSE) return CLOSED;
        return CONNECTING;
    case READY:
        return ev == EV_CLOSE ? CLOSED : READY;
    default:
        return CLOSED;
    }
}
