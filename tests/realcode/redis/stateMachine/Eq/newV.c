enum state { IDLE, CONNECTING, READY, CLOSED };
enum event { EV_CONNECT, EV_OK, EV_CLOSE };

int next_state(int s, int ev) {
    if (ev == EV_CLOSE && (s == CONNECTING || s == READY)) return CLOSED;
    if (s == IDLE && ev == EV_CONNECT) return CONNECTING;
    if (s == CONNECTING && ev == EV_OK) return READY;
    if (s == IDLE || s == CONNECTING || s == READY) return s;
    return CLOSED;
}
