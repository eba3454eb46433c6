// Package nexmark holds a source of the Nexmark benchmark's event stream:
// an online auction where persons open auctions and bid on them.
//
// # Events
//
// Each record's value is one event as a CSV line, and its timestamp the
// event's time in milliseconds since the epoch:
//
//	P,id,name,emailAddress,creditCard,city,state,dateTime
//	A,id,itemName,description,initialBid,reserve,dateTime,expires,seller,category
//	B,auction,bidder,price,channel,url,dateTime
//
// dateTime and expires are milliseconds since the epoch, prices integer
// cents, ids integers. No field holds a comma, a quote or a newline; names,
// descriptions and e-mail addresses may hold spaces.
//
// The stream is a function of the event number n = 0, 1, 2, ...: of every
// 50 consecutive numbers the first is a person, the next three auctions and
// the other 46 bids. Event n happens at BaseTime + n/EventsPerSecond seconds
// (rounded down to the millisecond), so timestamps never decrease with n.
// Persons and auctions get consecutive ids from 1000. The contents follow
// the Nexmark generator of Apache Beam with its default configuration, draw
// for draw: event n's fields come from java.util.Random seeded with n (this
// package reimplements it), in Beam's order, so with Seed 0, the default
// rate and the same base time the persons, auctions and bids equal Beam's.
// In short:
//
//   - a bid is for the current hot auction (the first of the latest batch of
//     100 auctions) half of the time, otherwise for one of the last 100
//     auctions or one of the next 10; it is by the current hot bidder (the
//     second person of the latest batch of 100) three times in four,
//     otherwise by one of the last 1000 persons or one of the next 10;
//   - an auction's seller is the current hot seller (the first person of the
//     latest batch of 100) three times in four, otherwise chosen as a
//     bidder is; its category is one of 10 to 14;
//   - prices (a bid's price, an auction's initial bid, and the reserve's
//     excess over it) are log-uniform from $1 to $1M: round(10^(6u) × 100)
//     cents for u uniform in [0, 1);
//   - an auction expires 1 ms to twice the time of 1666 events after its
//     creation (uniformly), about 100 auctions' worth of stream, so that
//     about 100 are open at any time;
//   - names come from 11 first and 9 last names, cities from 10 and states
//     from 6, e-mail addresses and item texts are random lowercase words.
//
// Deviations from Beam and Flink: Beam's records carry an "extra" padding
// field to reach average sizes of 200, 500 and 100 bytes; these do not, so
// they are shorter. A bid's channel and url follow the Flink generator (one
// of Google, Facebook, Baidu and Apple half of the time, otherwise
// channel-K for K below 10000) but Flink draws the URLs with an unseeded
// random generator, while here channel K's URL is drawn from seed K and the
// four hot channels' from seeds -1 to -4, so that the stream is
// deterministic. Flink's bids also add 1000 to the bidder id twice; these
// add it once, as Beam does. Event time advances by exactly
// 1/EventsPerSecond seconds per event, where Beam rounds the inter-event
// delay down to a whole microsecond, which only differs for rates that do
// not divide 10^6. A non-zero Seed salts every event's random seed, which
// Beam does not offer. Beam's optional out-of-order groups and delayed
// events are not modelled: within a split, events come in order.
//
// # One kind of event
//
// Config.Stream (a job spec's stream: persons, auctions or bids) makes a
// source emit only the events of one kind, as Flink's Nexmark reads
// persons, auctions and bids from three topics. Such a source walks the
// same event numbers as the mixed stream, split the same way, and skips
// the numbers of other kinds, so its events are those of the mixed stream,
// ids and timestamps included: three sources of the three kinds with the
// same Count, Seed and EventsPerSecond together emit exactly the mixed
// stream. Its split states count event numbers taken, not records emitted,
// and Rate caps the numbers taken, so such sources at one rate keep the
// pace and proportions of the mixed stream.
//
// # Splits, positions and rescaling
//
// The source is bounded by Count events (0: unbounded). Subtask i of
// parallelism p owns the event numbers congruent to i modulo p below Count:
// that share is a split. A split's state is (i, p, events emitted): it
// describes itself, so an instance restored with it by Seek, whatever its
// own SplitInfo, continues exactly that residue class. Position lists the
// states of the splits an instance holds, exhausted ones included, so the
// states of all instances can be redistributed over a new parallelism with
// connector.EvenSplit without losing or repeating an event. An instance
// that holds several splits merges them by event number, so each instance
// emits its events in increasing event time. Rate caps the events per
// second of wall-clock time of the whole source; each instance takes
// Rate/Parallelism of its own SplitInfo. Rate and EventsPerSecond are
// independent: to make event time track wall-clock time, set both to the
// same value.
package nexmark
