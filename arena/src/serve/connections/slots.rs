//! The places of the live page's connections: how many there are, how many one
//! client may hold, and whose place a newcomer takes when there is none for it.
//!
//! Pure bookkeeping, no sockets and no clock of its own: the accept loop asks
//! [`Slots::admit`] for each connection it accepts and says when a request on it
//! starts and ends being answered. A connection is either *waiting* for a request
//! head (from its admission, and again from the end of each answer while it is kept
//! alive) or *being answered*. Only a waiting connection is ever displaced: it has
//! been promised nothing yet, and a real browser's connection waits for a moment
//! only (it sends its head at once), so the one that has waited longest is the one
//! least likely to be a viewer.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

/// A client as the limits count it: an IPv4 address, or an IPv6 /64 (the network
/// of one subscriber, who has billions of addresses to connect from).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Client {
    /// An IPv4 address (an IPv4-mapped IPv6 one counts as itself).
    V4(Ipv4Addr),
    /// The first 64 bits of an IPv6 address.
    V6(u64),
}

impl Client {
    /// The client that connects from `ip`.
    pub fn of(ip: IpAddr) -> Client {
        match ip.to_canonical() {
            IpAddr::V4(v4) => Client::V4(v4),
            IpAddr::V6(v6) => Client::V6((v6.to_bits() >> 64) as u64),
        }
    }
}

/// A connection's number, never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(u64);

/// What [`Slots::admit`] decided for a newcomer.
#[derive(Debug)]
pub enum Admission<H> {
    /// It has a place; `displaced` is the handle of the waiting connection whose
    /// place it took, to be closed.
    Admitted { id: Id, displaced: Option<H> },
    /// Its client holds its share, every one of them being answered: it is turned
    /// away.
    Refused,
    /// Every place is taken by a connection being answered: it waits for one to end.
    Full,
}

/// The connections held, each with a handle `H` (what closes it).
#[derive(Debug)]
pub struct Slots<H> {
    cap: usize,
    per_client: usize,
    next: u64,
    held: HashMap<Id, Held<H>>,
    by_client: HashMap<Client, usize>,
}

#[derive(Debug)]
struct Held<H> {
    client: Client,
    /// Requests being answered; none: waiting for a head since `since`.
    answering: u32,
    since: Instant,
    handle: H,
}

impl<H> Slots<H> {
    /// At most `cap` connections, at most `per_client` of them from one client (at
    /// least one each).
    pub fn new(cap: usize, per_client: usize) -> Slots<H> {
        Slots {
            cap: cap.max(1),
            per_client: per_client.max(1),
            next: 0,
            held: HashMap::new(),
            by_client: HashMap::new(),
        }
    }

    /// A place for a connection of `client` accepted at `now`, closed through
    /// `handle` if it is ever displaced. Its client holding its share, it takes the
    /// place of that client's connection waiting longest for a head; the server
    /// full, of the connection of any client waiting longest.
    pub fn admit(&mut self, client: Client, now: Instant, handle: H) -> Admission<H> {
        let displaced = if self.held_by(client) >= self.per_client {
            match self.waiting_longest(|c| c == client) {
                Some(id) => self.remove(id),
                None => return Admission::Refused,
            }
        } else if self.held.len() >= self.cap {
            match self.waiting_longest(|_| true) {
                Some(id) => self.remove(id),
                None => return Admission::Full,
            }
        } else {
            None
        };
        let id = Id(self.next);
        self.next += 1;
        self.held.insert(
            id,
            Held {
                client,
                answering: 0,
                since: now,
                handle,
            },
        );
        *self.by_client.entry(client).or_default() += 1;
        Admission::Admitted { id, displaced }
    }

    /// A request on `id` is being answered: the connection cannot be displaced
    /// until it is answered.
    pub fn answering(&mut self, id: Id) {
        if let Some(held) = self.held.get_mut(&id) {
            held.answering += 1;
        }
    }

    /// A request on `id` was answered (or given up) at `now`. Returns whether the
    /// connection now waits for a head (and may be displaced).
    pub fn answered(&mut self, id: Id, now: Instant) -> bool {
        let Some(held) = self.held.get_mut(&id) else {
            return false;
        };
        held.answering = held.answering.saturating_sub(1);
        if held.answering == 0 {
            held.since = now;
        }
        held.answering == 0
    }

    /// The connection `id` ended (or was displaced before).
    pub fn release(&mut self, id: Id) {
        self.remove(id);
    }

    /// Connections held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Connections held from `client`.
    pub fn held_by(&self, client: Client) -> usize {
        self.by_client.get(&client).copied().unwrap_or(0)
    }

    fn remove(&mut self, id: Id) -> Option<H> {
        let held = self.held.remove(&id)?;
        if let Some(count) = self.by_client.get_mut(&held.client) {
            *count -= 1;
            if *count == 0 {
                self.by_client.remove(&held.client);
            }
        }
        Some(held.handle)
    }

    /// Of the connections waiting for a head whose client is `of`, the one waiting
    /// longest (the earlier admitted on a tie). At most a cap's worth are looked
    /// through, once per admission that needs a place.
    fn waiting_longest(&self, of: impl Fn(Client) -> bool) -> Option<Id> {
        self.held
            .iter()
            .filter(|(_, held)| held.answering == 0 && of(held.client))
            .min_by_key(|(id, held)| (held.since, **id))
            .map(|(id, _)| *id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Duration;

    fn v4(last: u8) -> Client {
        Client::of(IpAddr::V4(Ipv4Addr::new(192, 0, 2, last)))
    }

    fn admitted<H: std::fmt::Debug>(admission: Admission<H>) -> (Id, Option<H>) {
        match admission {
            Admission::Admitted { id, displaced } => (id, displaced),
            other => panic!("not admitted: {other:?}"),
        }
    }

    #[test]
    fn an_ipv6_client_is_its_64_and_a_mapped_ipv4_is_itself() {
        let a: IpAddr = "2001:db8:1:2::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(Client::of(a), Client::of(b));
        assert_ne!(Client::of(a), Client::of(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(Client::of(mapped), v4(7));
    }

    #[test]
    fn a_client_holding_its_share_displaces_its_own_longest_waiting_then_is_refused() {
        let t = Instant::now();
        let mut slots = Slots::new(10, 2);
        let (first, _) = admitted(slots.admit(v4(1), t, "first"));
        let (second, _) = admitted(slots.admit(v4(1), t + Duration::from_secs(1), "second"));
        // Another client's waiting connection is not this client's to take.
        admitted(slots.admit(v4(2), t, "other"));
        let (third, displaced) = admitted(slots.admit(v4(1), t + Duration::from_secs(2), "third"));
        assert_eq!(displaced, Some("first"));
        assert_eq!(slots.held_by(v4(1)), 2);
        // Being answered, a connection keeps its place.
        slots.answering(second);
        slots.answering(third);
        assert!(matches!(
            slots.admit(v4(1), t + Duration::from_secs(3), "fourth"),
            Admission::Refused
        ));
        // Answered, it waits again, from then.
        assert!(slots.answered(second, t + Duration::from_secs(4)));
        let (_, displaced) = admitted(slots.admit(v4(1), t + Duration::from_secs(5), "fifth"));
        assert_eq!(displaced, Some("second"));
        slots.release(first);
        assert_eq!(slots.len(), 3);
    }

    #[test]
    fn a_full_server_displaces_the_longest_waiting_of_anyone_or_makes_the_newcomer_wait() {
        let t = Instant::now();
        let mut slots = Slots::new(2, 2);
        let (a, _) = admitted(slots.admit(v4(1), t + Duration::from_secs(1), "a"));
        let (b, _) = admitted(slots.admit(v4(2), t, "b"));
        let (c, displaced) = admitted(slots.admit(v4(3), t + Duration::from_secs(2), "c"));
        assert_eq!(displaced, Some("b"));
        slots.answering(a);
        slots.answering(c);
        assert!(matches!(
            slots.admit(v4(4), t + Duration::from_secs(3), "d"),
            Admission::Full
        ));
        slots.release(a);
        admitted(slots.admit(v4(4), t + Duration::from_secs(3), "d"));
        // A displaced connection's own release changes nothing.
        slots.release(b);
        assert_eq!(slots.len(), 2);
    }

    /// One step of a random history.
    #[derive(Clone, Debug)]
    enum Step {
        Admit { client: u8 },
        Answering { which: usize },
        Answered { which: usize },
        Release { which: usize },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..4).prop_map(|client| Step::Admit { client }),
            (0usize..64).prop_map(|which| Step::Answering { which }),
            (0usize..64).prop_map(|which| Step::Answered { which }),
            (0usize..64).prop_map(|which| Step::Release { which }),
        ]
    }

    proptest! {
        /// Whatever clients do: never more than the cap, nor more than a share from
        /// one client; a connection being answered is never displaced; the one
        /// displaced is the longest waiting of those it could be; a newcomer is
        /// refused or made to wait only when nothing could be displaced.
        #[test]
        fn the_limits_hold_and_only_the_longest_waiting_is_displaced(
            cap in 1usize..8,
            share in 1usize..8,
            steps in proptest::collection::vec(step(), 1..200),
        ) {
            let start = Instant::now();
            let mut slots: Slots<Id> = Slots::new(cap, share);
            // The model: what each connection is, by the handle it was given.
            let mut model: Vec<(Id, Client, u32, Instant)> = Vec::new();
            for (tick, step) in steps.into_iter().enumerate() {
                let now = start + Duration::from_millis(tick as u64);
                match step {
                    Step::Admit { client } => {
                        let client = v4(client);
                        let handle = Id(slots.next);
                        let of_client = model.iter().filter(|m| m.1 == client).count();
                        let full = model.len() >= cap;
                        let candidates: Vec<&(Id, Client, u32, Instant)> = model
                            .iter()
                            .filter(|m| m.2 == 0 && (of_client < share || m.1 == client))
                            .collect();
                        match slots.admit(client, now, handle) {
                            Admission::Admitted { id, displaced } => {
                                prop_assert_eq!(id, handle);
                                if let Some(gone) = displaced {
                                    prop_assert!(of_client >= share || full);
                                    let oldest = candidates.iter().map(|m| (m.3, m.0)).min();
                                    let gone_at = model.iter().find(|m| m.0 == gone).map(|m| (m.3, m.0));
                                    prop_assert_eq!(gone_at, oldest);
                                    model.retain(|m| m.0 != gone);
                                } else {
                                    prop_assert!(of_client < share && !full);
                                }
                                model.push((id, client, 0, now));
                            }
                            Admission::Refused => {
                                prop_assert!(of_client >= share && candidates.is_empty());
                            }
                            Admission::Full => {
                                prop_assert!(of_client < share && full && candidates.is_empty());
                            }
                        }
                    }
                    Step::Answering { which } if !model.is_empty() => {
                        let at = which % model.len();
                        let m = &mut model[at];
                        slots.answering(m.0);
                        m.2 += 1;
                    }
                    Step::Answered { which } if !model.is_empty() => {
                        let at = which % model.len();
                        let m = &mut model[at];
                        let waits = slots.answered(m.0, now);
                        m.2 = m.2.saturating_sub(1);
                        if m.2 == 0 {
                            m.3 = now;
                        }
                        prop_assert_eq!(waits, m.2 == 0);
                    }
                    Step::Release { which } if !model.is_empty() => {
                        let gone = model.remove(which % model.len());
                        slots.release(gone.0);
                    }
                    _ => {}
                }
                prop_assert_eq!(slots.len(), model.len());
                prop_assert!(slots.len() <= cap);
                for client in (0..4).map(v4) {
                    let held = slots.held_by(client);
                    prop_assert!(held <= share);
                    prop_assert_eq!(held, model.iter().filter(|m| m.1 == client).count());
                }
            }
        }
    }
}
