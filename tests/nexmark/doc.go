// Package nexmark computes the expected results of the Nexmark queries that
// Floe's examples run (udfs/nexmark), by brute force over a slice of
// events, so that tests can check a streaming job's output against them.
//
// The events are the CSV lines of the nexmark source
// (host/connector/nexmark):
//
//	P,id,name,emailAddress,creditCard,city,state,dateTime
//	A,id,itemName,description,initialBid,reserve,dateTime,expires,seller,category
//	B,auction,bidder,price,channel,url,dateTime
//
// Parse reads them; Q1, Q2, Q5, Q7 and Q8 each return their query's output
// lines sorted as strings (slices.Sort), with one line per result:
//
//   - q1, currency conversion: every bid with its price in euros,
//     price*908/1000 rounded toward zero (computed as
//     price/1000*908 + price%1000*908/1000 so that it cannot overflow):
//     "auction,bidder,euroPrice,channel,url,dateTime".
//   - q2, selection: the bids on auctions whose id is a multiple of 123:
//     "auction,price".
//   - q5, hot items: for each sliding window of 10 s every 2 s that holds a
//     bid, the auctions with the most bids in it, all of them on a tie:
//     "windowEnd,auction,count".
//   - q7, highest bid: for each tumbling 10 s window that holds a bid, the
//     bids with the highest price in it, all of them on a tie (so two equal
//     bids give two equal lines): "windowEnd,auction,bidder,price".
//   - q8, new users: for each tumbling 10 s window, the persons created in it
//     who also opened an auction in it (the auction's seller is the
//     person's id), once per person: "windowEnd,personId,name".
//
// The queries over several kinds of event (joins.go) follow the Nexmark
// definitions of Flink's and Beam's suites, each documented with its
// function: Q0 (pass through), Q3 (local item suggestion), Q4 (average
// closing price per category, read every window), Q6 (average selling
// price of a seller's last 10 auctions), Q9 (winning bids, from Winners),
// Q11 (user sessions), Q13 (bounded side input join), Q17 (auction
// statistics per day), Q20 (bids of category 10 with their auction), Q21
// and Q22 (channel ids and URL directories); stats.go adds Q14
// (calculation), Q15 and Q16 (daily bid and channel statistics with
// distinct counts), Q18 (last bid of each bidder and auction) and Q19 (top
// 10 bids of each auction). Each is a plain loop or
// lookup over the whole event list, in no particular order.
//
// Windows are on event time, the events' dateTime in milliseconds: a
// window [start, end) holds the events with start <= dateTime < end. A
// tumbling window of size s starts at multiples of s; an event at ts is in
// the sliding windows of size s and slide d whose start is a multiple of d
// in (ts-s, ts]. windowEnd is printed as the integer end in milliseconds.
// The functions are written for clarity, not speed, and share no code with
// the streaming implementations they check.
//
// The Native functions are the same queries as plain Go over event lines in
// timestamp order, for the benchmarks' comparison with native code: Q1Native
// and Q2Native map one line, and Q5Native and Q7Native fire each window as
// soon as an event past its end arrives. Q3Native, Q4Native, Q9Native and
// Q11Native (native_joins.go) close auctions and sessions in the same way.
package nexmark
