package kvevents

import "github.com/go-zeromq/zmq4"

// receive hands the frames of each message sub receives to handle, in
// order, until Recv fails (the socket closed or its context ended).
func receive(sub zmq4.Socket, handle func(frames [][]byte)) {
	for {
		msg, err := sub.Recv()
		if err != nil {
			return
		}
		handle(msg.Frames)
	}
}
