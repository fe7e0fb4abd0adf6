package etcdtest

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// A port is a loopback TCP port held for the whole life of a cluster, so that a member can be
// killed and restarted on the same address while nothing else on the machine takes it.
//
// The hold is a socket bound to 127.0.0.1:port with SO_REUSEPORT that never listens: it gets
// no connection, but the kernel will neither hand the port to another program's bind (that
// program lacks SO_REUSEPORT, or is another user) nor to an outgoing connection's automatic
// port. A member binds the same port with SO_REUSEPORT too (embed's SocketOpts), so it can
// listen there each time it starts. Listening on :0, closing and passing the number on would
// leave a window in which any connect(2) on the machine could take the port.
type port struct {
	fd  int
	num int
}

// reservePort holds a free loopback port until release.
func reservePort() (*port, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|sockCloexec, 0)
	if err != nil {
		return nil, fmt.Errorf("reserve a loopback port: socket: %w", err)
	}
	for _, opt := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("reserve a loopback port: setsockopt: %w", err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reserve a loopback port: bind: %w", err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("reserve a loopback port: getsockname: %w", err)
	}
	return &port{fd: fd, num: sa.(*unix.SockaddrInet4).Port}, nil
}

// url is the port as an http URL on loopback.
func (p *port) url() string { return fmt.Sprintf("http://127.0.0.1:%d", p.num) }

// release lets the port go.
func (p *port) release() { unix.Close(p.fd) }
