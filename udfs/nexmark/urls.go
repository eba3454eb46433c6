package main

import (
	"bytes"

	floe "github.com/floe-stream/floe/sdk/go"
)

// q21 and q22 read a bid's channel and url (Flink's q21 and q22):
//
//   - q21, add channel id: "auction,bidder,price,channel,channelId" where
//     channelId is 0 to 3 for Apple, Google, Facebook and Baidu (in any
//     case) and otherwise the value of the url's channel_id parameter (the
//     text after "channel_id=" that follows "&" or starts the url, up to
//     the next "&"); a bid with neither is dropped.
//   - q22, get URL directories: "auction,bidder,price,channel,dir1,dir2,dir3"
//     with the url's fourth, fifth and sixth "/"-separated parts (empty
//     when it has fewer).

func init() {
	floe.FlatMap("q21", q21)
	floe.FlatMap("q22", q22)
}

var hotChannelIDs = [...]string{"apple", "google", "facebook", "baidu"}

// q21 adds a bid's channel id.
func q21(ev []byte, emit floe.Emitter) error {
	if !split(ev, bidF[:]) {
		return errEvent
	}
	id, ok := channelID(bidF[4], bidF[5])
	if !ok {
		return nil
	}
	line = bidPrefix(line[:0])
	emit.Emit(append(append(line, ','), id...))
	return nil
}

// channelID returns the id q21 gives a bid's channel and url.
func channelID(channel, url []byte) ([]byte, bool) {
	for i, c := range hotChannelIDs {
		if bytes.EqualFold(channel, []byte(c)) {
			return []byte{byte('0' + i)}, true
		}
	}
	const param = "channel_id="
	for i := 0; i+len(param) <= len(url); i++ {
		if (i == 0 || url[i-1] == '&') && bytes.HasPrefix(url[i:], []byte(param)) {
			v := url[i+len(param):]
			if j := bytes.IndexByte(v, '&'); j >= 0 {
				v = v[:j]
			}
			return v, true
		}
	}
	return nil, false
}

// q22 splits a bid's url into directories.
func q22(ev []byte, emit floe.Emitter) error {
	if !split(ev, bidF[:]) {
		return errEvent
	}
	line = bidPrefix(line[:0])
	parts := bytes.SplitN(bidF[5], []byte("/"), 7)
	for i := 3; i <= 5; i++ {
		line = append(line, ',')
		if i < len(parts) {
			line = append(line, parts[i]...)
		}
	}
	emit.Emit(line)
	return nil
}

// bidPrefix appends "auction,bidder,price,channel" of the bid in bidF.
func bidPrefix(dst []byte) []byte {
	for i := 1; i <= 4; i++ {
		if i > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, bidF[i]...)
	}
	return dst
}
