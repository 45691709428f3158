//! Opaque handles: a slot index, a generation and a type tag packed in a u64, looked up in one
//! table. A NULL (0), stale (the slot was freed or reused), wrong-type or out-of-range handle is
//! an error, never a dereference: the C side never holds a pointer into the library.
//!
//! Layout of a handle: bits 0..32 slot index + 1, bits 32..56 generation, bits 56..64 kind.
//! Objects record the screen (and context) they were made on, so a handle from another screen
//! or context is refused, and destroying a screen or context frees what hangs off it.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::status::{Error, Result, SGX535_ERROR_INVALID_HANDLE};

/// What a handle names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Screen = 1,
    Context,
    Resource,
    Fence,
    Blend,
    DepthStencilAlpha,
    Rasterizer,
    Sampler,
    VertexElements,
    VertexShader,
    FragmentShader,
    SamplerView,
    Surface,
    Transfer,
    Query,
}

const KINDS: [Kind; 15] = [
    Kind::Screen,
    Kind::Context,
    Kind::Resource,
    Kind::Fence,
    Kind::Blend,
    Kind::DepthStencilAlpha,
    Kind::Rasterizer,
    Kind::Sampler,
    Kind::VertexElements,
    Kind::VertexShader,
    Kind::FragmentShader,
    Kind::SamplerView,
    Kind::Surface,
    Kind::Transfer,
    Kind::Query,
];

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Screen => "a screen",
            Kind::Context => "a context",
            Kind::Resource => "a resource",
            Kind::Fence => "a fence",
            Kind::Blend => "a blend state",
            Kind::DepthStencilAlpha => "a depth-stencil-alpha state",
            Kind::Rasterizer => "a rasterizer state",
            Kind::Sampler => "a sampler state",
            Kind::VertexElements => "a vertex elements state",
            Kind::VertexShader => "a vertex shader",
            Kind::FragmentShader => "a fragment shader",
            Kind::SamplerView => "a sampler view",
            Kind::Surface => "a surface",
            Kind::Transfer => "a transfer",
            Kind::Query => "a query",
        }
    }

    fn from_tag(tag: u8) -> Option<Kind> {
        KINDS.iter().copied().find(|k| *k as u8 == tag)
    }
}

/// Who an object belongs to: the screen's handle, and the context's (0 for screen objects).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Owner {
    pub screen: u64,
    pub ctx: u64,
}

struct Entry {
    kind: Kind,
    owner: Owner,
    value: Arc<dyn Any + Send + Sync>,
}

struct Slot {
    generation: u32,
    entry: Option<Entry>,
}

#[derive(Default)]
struct Table {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
}

static TABLE: Mutex<Table> = Mutex::new(Table {
    slots: Vec::new(),
    free: Vec::new(),
    live: 0,
});

const GEN_MASK: u32 = (1 << 24) - 1;

/// Removals so far, counted under the table's lock: a thread's cached lookups are valid while
/// the count is what it was when the thread last checked them (a handle dies only by removal).
static REMOVALS: AtomicU64 = AtomicU64::new(0);

/// A lookup a thread made, kept so the next call with the same handle (a context's, each
/// draw) takes neither the table's lock nor a reference count: the cache holds the object's
/// `Arc` and lends `&T` ([`Lent`]).
struct Cached {
    h: u64,
    kind: Kind,
    /// The concrete type of `value` (compared without a call through its vtable).
    ty: TypeId,
    value: Arc<dyn Any + Send + Sync>,
    owner: Owner,
}

/// Handles a thread remembers, by slot index modulo this: a draw that changes vertex layout
/// and buffers names the context, a few buffers, the upload buffer and vertex element states,
/// and with 4 ways those collided (drawoverhead's intermixed attributes took the table's lock
/// on most calls); with 16, a few calls a draw still missed (test 6: the slow path was 4% of
/// the app thread). Not a hardware number.
const CACHE_WAYS: usize = 64;

/// A thread's cache. How a removal on another thread is handled (the rule that makes lending
/// sound): the cache holds a strong reference, so an object it lends cannot be freed under
/// the borrower; the removal counts in `REMOVALS`, and this thread's next lookup, seeing the
/// count moved, checks every entry against the table under its lock and lets go of the dead
/// ones (so a handle destroyed elsewhere is refused from then on, and its object is freed then
/// at the latest, or when the thread ends). A removal on this thread lets go of its own entry
/// at once. An entry is never dropped while anything is lent: it waits in `graveyard` until
/// the last [`Lent`] of the thread ends.
pub(crate) struct Cache {
    ways: [Option<Cached>; CACHE_WAYS],
    /// `REMOVALS` when the entries were last checked against the table.
    checked: u64,
    /// [`Lent`] references alive on this thread.
    lends: usize,
    graveyard: Vec<Arc<dyn Any + Send + Sync>>,
}

thread_local! {
    static CACHE: RefCell<Cache> = const {
        RefCell::new(Cache {
            ways: [const { None }; CACHE_WAYS],
            checked: 0,
            lends: 0,
            graveyard: Vec::new(),
        })
    };
}

fn cache_way(h: u64) -> usize {
    (h as usize) % CACHE_WAYS
}

/// An object lent by a lookup: from this thread's cache (no reference count changes), or
/// owned when the cache is gone (a call during thread exit). Not `Send`: the cache that
/// holds the object is this thread's.
pub(crate) enum Lent<T: Any + Send + Sync> {
    /// Points into an `Arc` that this thread's cache (or its graveyard) holds while
    /// `Cache::lends` counts this; and at that cache, so the drop needs no thread-local
    /// lookup (in a shared library each is a call to `__tls_get_addr`, and drawoverhead's
    /// draws make a dozen).
    Cached(NonNull<T>, NonNull<RefCell<Cache>>),
    Owned(Arc<T>),
}

impl<T: Any + Send + Sync> std::ops::Deref for Lent<T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            // SAFETY: the cache keeps the Arc this points into while the lend is counted
            // (entries evicted meanwhile wait in the graveyard), and the count ends only in
            // drop, after every borrow of self.
            Lent::Cached(p, _) => unsafe { p.as_ref() },
            Lent::Owned(a) => a,
        }
    }
}

impl<T: Any + Send + Sync> Lent<T> {
    /// The object's own `Arc` (one count change).
    pub(crate) fn to_arc(&self) -> Arc<T> {
        match self {
            Lent::Cached(p, _) => {
                let p = p.as_ptr().cast_const();
                // SAFETY: p is the data pointer of a live Arc<T> (an Arc<dyn Any> whose
                // concrete type is T, see `lend`), kept by the cache during this call:
                // a count taken on it is a new owner of that allocation.
                unsafe {
                    Arc::increment_strong_count(p);
                    Arc::from_raw(p)
                }
            }
            Lent::Owned(a) => a.clone(),
        }
    }
}

impl<T: Any + Send + Sync> Drop for Lent<T> {
    fn drop(&mut self) {
        if let Lent::Cached(_, cache) = self {
            // SAFETY: `cache` is this thread's CACHE (a Lent is neither Send nor Sync, so it
            // is dropped on the thread that made it), which lives until the thread's
            // thread-local destructors run; a Lent lives within one call into the library,
            // and a call made after CACHE's destructor gets an owned Lent (`lend`).
            let c = unsafe { cache.as_ref() };
            let dead = {
                let mut c = c.borrow_mut();
                c.lends -= 1;
                if c.lends == 0 {
                    std::mem::take(&mut c.graveyard)
                } else {
                    Vec::new()
                }
            };
            // Dropped outside the cache's borrow (a destructor may call back in).
            drop(dead);
        }
    }
}

/// The cached lookup of `h`, lent; None on a miss (or a stale check). `cell` holds `c`.
fn cached<T: Any + Send + Sync>(
    c: &mut Cache,
    cell: NonNull<RefCell<Cache>>,
    h: u64,
    kind: Kind,
    now: u64,
) -> Option<(Lent<T>, Owner)> {
    if c.checked != now {
        return None;
    }
    let e = c.ways[cache_way(h)].as_ref()?;
    if e.h != h || e.kind != kind || e.ty != TypeId::of::<T>() {
        return None;
    }
    // The data pointer of the Arc, whose concrete type is T (checked above).
    let p = NonNull::from(&*e.value).cast::<T>();
    let owner = e.owner;
    c.lends += 1;
    Some((Lent::Cached(p, cell), owner))
}

/// Lets go of this thread's entries that `dead` picks (into the graveyard while anything is
/// lent); returns what may be dropped now.
fn forget(dead: impl Fn(&Cached) -> bool) -> Vec<Arc<dyn Any + Send + Sync>> {
    CACHE
        .try_with(|c| {
            let mut c = c.borrow_mut();
            let c = &mut *c;
            for w in c.ways.iter_mut() {
                if w.as_ref().is_some_and(&dead) {
                    c.graveyard.push(w.take().expect("checked").value);
                }
            }
            if c.lends == 0 {
                std::mem::take(&mut c.graveyard)
            } else {
                Vec::new()
            }
        })
        .unwrap_or_default()
}

fn table() -> MutexGuard<'static, Table> {
    // A panic while the table was locked cannot leave it inconsistent (every update is one
    // assignment), so a poisoned lock is used as it is.
    TABLE.lock().unwrap_or_else(|e| e.into_inner())
}

fn pack(kind: Kind, index: u32, generation: u32) -> u64 {
    (u64::from(kind as u8) << 56) | (u64::from(generation & GEN_MASK) << 32) | u64::from(index + 1)
}

fn unpack(h: u64) -> (u8, u32, u32) {
    (
        (h >> 56) as u8,
        ((h >> 32) as u32) & GEN_MASK,
        (h as u32).wrapping_sub(1),
    )
}

fn bad(msg: String) -> Error {
    Error::new(SGX535_ERROR_INVALID_HANDLE, msg)
}

/// Stores an object; returns its handle.
pub(crate) fn insert<T: Any + Send + Sync>(kind: Kind, owner: Owner, value: T) -> u64 {
    insert_arc(kind, owner, Arc::new(value))
}

/// Stores an object that is shared already (its `Arc` itself, so a lookup hands out that
/// `Arc` with one count change); returns its handle.
pub(crate) fn insert_arc<T: Any + Send + Sync>(kind: Kind, owner: Owner, value: Arc<T>) -> u64 {
    let mut t = table();
    let entry = Entry { kind, owner, value };
    t.live += 1;
    if let Some(index) = t.free.pop() {
        let slot = &mut t.slots[index as usize];
        slot.entry = Some(entry);
        pack(kind, index, slot.generation)
    } else {
        let index = t.slots.len() as u32;
        t.slots.push(Slot {
            // Generations start at 1, so a handle of all-zero generation never matches.
            generation: 1,
            entry: Some(entry),
        });
        pack(kind, index, 1)
    }
}

fn lookup<'t>(t: &'t Table, h: u64, kind: Kind, what: &str) -> Result<&'t Entry> {
    if h == 0 {
        return Err(bad(format!("{what} is a null handle")));
    }
    let (tag, generation, index) = unpack(h);
    let named = Kind::from_tag(tag);
    if named.is_some_and(|k| k != kind) {
        return Err(bad(format!(
            "{what} is {}, not {}",
            named.map_or("unknown", Kind::name),
            kind.name()
        )));
    }
    let entry = t
        .slots
        .get(index as usize)
        .filter(|s| s.generation == generation && named.is_some())
        .and_then(|s| s.entry.as_ref())
        .filter(|e| e.kind == kind)
        .ok_or_else(|| {
            bad(format!(
                "{what} ({h:#x}) is not a live handle: destroyed, or never made by this library"
            ))
        })?;
    Ok(entry)
}

/// The object behind a handle of `kind`, lent, and its owner.
///
/// The cache hit is inlined into the caller: returned through memory, the result was read
/// back wider than it was written (a store-forwarding stall), the instruction after it the
/// hottest of `resource::lend` in drawoverhead's test 6.
#[inline]
pub(crate) fn lend<T: Any + Send + Sync>(
    h: u64,
    kind: Kind,
    what: &str,
) -> Result<(Lent<T>, Owner)> {
    let now = REMOVALS.load(Ordering::Acquire);
    let hit = CACHE.try_with(|c| cached::<T>(&mut c.borrow_mut(), NonNull::from(c), h, kind, now));
    match hit {
        Ok(Some(hit)) => Ok(hit),
        Ok(None) => lend_missed(h, kind, what, true),
        Err(_) => lend_missed(h, kind, what, false),
    }
}

/// [`lend`] after a miss in this thread's cache, or without one (`cache_alive` false: a
/// call during thread exit).
#[inline(never)]
fn lend_missed<T: Any + Send + Sync>(
    h: u64,
    kind: Kind,
    what: &str,
    cache_alive: bool,
) -> Result<(Lent<T>, Owner)> {
    if !cache_alive {
        // This thread's cache is gone (a call during thread exit): owned.
        let t = table();
        let e = lookup(&t, h, kind, what)?;
        let v = e
            .value
            .clone()
            .downcast::<T>()
            .map_err(|_| mismatch(what))?;
        return Ok((Lent::Owned(v), e.owner));
    }
    let t = table();
    // Under the lock, so no removal slips between the check and `checked`.
    let now = REMOVALS.load(Ordering::Acquire);
    let dead = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        let c = &mut *c;
        if c.checked != now {
            // Entries whose handle was removed (on any thread) since the last check go.
            for w in c.ways.iter_mut() {
                let live = w.as_ref().is_some_and(|e| {
                    lookup(&t, e.h, e.kind, "").is_ok_and(|x| Arc::ptr_eq(&x.value, &e.value))
                });
                if !live {
                    if let Some(old) = w.take() {
                        c.graveyard.push(old.value);
                    }
                }
            }
            c.checked = now;
        }
        if c.lends == 0 {
            std::mem::take(&mut c.graveyard)
        } else {
            Vec::new()
        }
    });
    let found = lookup(&t, h, kind, what).and_then(|e| {
        if e.value.is::<T>() {
            Ok((e.value.clone(), e.owner))
        } else {
            Err(mismatch(what))
        }
    });
    drop(t);
    drop(dead);
    let (value, owner) = found?;
    Ok(CACHE.with(|cell| {
        let mut c = cell.borrow_mut();
        let c = &mut *c;
        let way = &mut c.ways[cache_way(h)];
        if let Some(old) = way.take() {
            c.graveyard.push(old.value);
        }
        *way = Some(Cached {
            h,
            kind,
            ty: TypeId::of::<T>(),
            value,
            owner,
        });
        cached::<T>(c, NonNull::from(cell), h, kind, now).expect("just cached")
    }))
}

fn mismatch(what: &str) -> Error {
    bad(format!("{what}: internal type mismatch"))
}

/// The object behind a handle of `kind`, and its owner.
pub(crate) fn get<T: Any + Send + Sync>(h: u64, kind: Kind, what: &str) -> Result<(Arc<T>, Owner)> {
    let (v, owner) = lend::<T>(h, kind, what)?;
    Ok((v.to_arc(), owner))
}

/// Removes an object; returns it and its owner.
pub(crate) fn remove<T: Any + Send + Sync>(
    h: u64,
    kind: Kind,
    what: &str,
) -> Result<(Arc<T>, Owner)> {
    let mut t = table();
    lookup(&t, h, kind, what)?;
    let (_, _, index) = unpack(h);
    let slot = &mut t.slots[index as usize];
    let e = slot.entry.take().expect("looked up");
    REMOVALS.fetch_add(1, Ordering::AcqRel);
    slot.generation = (slot.generation + 1) & GEN_MASK;
    if slot.generation == 0 {
        slot.generation = 1;
    }
    t.free.push(index);
    t.live -= 1;
    let owner = e.owner;
    drop(t);
    // This thread's cached lookup goes at once (others' at their next lookup).
    drop(forget(|c| c.h == h));
    let v = e.value.downcast::<T>().map_err(|_| mismatch(what))?;
    Ok((v, owner))
}

/// Removes every object owned by a screen (ctx == 0) or by a context, and returns them so the
/// caller drops them after the table's lock is released (their destructors may wait on the GPU).
pub(crate) fn remove_owned(screen: u64, ctx: u64) -> Vec<Arc<dyn Any + Send + Sync>> {
    let mut t = table();
    let mut gone = Vec::new();
    let mut freed = Vec::new();
    for (i, slot) in t.slots.iter_mut().enumerate() {
        let hit = slot.entry.as_ref().is_some_and(|e| {
            if ctx != 0 {
                e.owner.ctx == ctx
            } else {
                e.owner.screen == screen
            }
        });
        if hit {
            let e = slot.entry.take().expect("checked");
            slot.generation = ((slot.generation + 1) & GEN_MASK).max(1);
            freed.push(i as u32);
            gone.push(e.value);
        }
    }
    t.live -= freed.len();
    t.free.extend(freed);
    REMOVALS.fetch_add(1, Ordering::AcqRel);
    drop(t);
    // This thread's cached lookups of them go at once (others' at their next lookup); the
    // objects themselves are the caller's to drop.
    drop(forget(|c| {
        if ctx != 0 {
            c.owner.ctx == ctx
        } else {
            c.owner.screen == screen
        }
    }));
    gone
}

/// Live objects of every kind (leak checks in tests).
pub(crate) fn live_count() -> usize {
    table().live
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_wrong_type_and_forged_handles_are_refused() {
        let h = insert(Kind::Query, Owner::default(), 5u32);
        assert_eq!(*get::<u32>(h, Kind::Query, "q").unwrap().0, 5);
        let wrong = get::<u32>(h, Kind::Fence, "f").unwrap_err();
        assert_eq!(wrong.status, SGX535_ERROR_INVALID_HANDLE);
        assert!(wrong.msg.contains("a query, not a fence"), "{}", wrong.msg);
        remove::<u32>(h, Kind::Query, "q").unwrap();
        let stale = get::<u32>(h, Kind::Query, "q").unwrap_err();
        assert!(stale.msg.contains("not a live handle"), "{}", stale.msg);
        // The slot is reused with a new generation: the old handle stays dead.
        let h2 = insert(Kind::Query, Owner::default(), 6u32);
        assert_ne!(h, h2);
        assert!(get::<u32>(h, Kind::Query, "q").is_err());
        assert_eq!(*get::<u32>(h2, Kind::Query, "q").unwrap().0, 6);
        remove::<u32>(h2, Kind::Query, "q").unwrap();
        for forged in [0u64, 1, u64::MAX, 0xdead_beef, (3u64 << 56) | 12345] {
            assert_eq!(
                get::<u32>(forged, Kind::Query, "q").unwrap_err().status,
                SGX535_ERROR_INVALID_HANDLE
            );
        }
    }

    #[test]
    fn a_cached_lookup_never_outlives_its_handle() {
        let alive = Arc::new(());
        let h = insert(Kind::Query, Owner::default(), Probe(alive.clone()));
        // The second lookup comes from this thread's cache.
        for _ in 0..2 {
            assert!(get::<Probe>(h, Kind::Query, "q").is_ok());
        }
        assert!(
            get::<Probe>(h, Kind::Fence, "f").is_err(),
            "wrong kind through the cache"
        );
        remove::<Probe>(h, Kind::Query, "q").unwrap();
        // Removed: refused, and dropped at once (the cache holds no strong reference).
        assert!(get::<Probe>(h, Kind::Query, "q").is_err());
        assert_eq!(
            Arc::strong_count(&alive),
            1,
            "the cache kept a removed object alive"
        );
        // A new object in the same slot is found under its own handle only.
        let h2 = insert(Kind::Query, Owner::default(), Probe(alive.clone()));
        assert!(get::<Probe>(h2, Kind::Query, "q").is_ok());
        assert!(get::<Probe>(h, Kind::Query, "q").is_err());
        // Removing everything a context owns ends its cached lookups too.
        let owner = Owner {
            screen: 91,
            ctx: 92,
        };
        let h3 = insert(Kind::Blend, owner, 3u8);
        assert!(get::<u8>(h3, Kind::Blend, "b").is_ok());
        drop(remove_owned(91, 92));
        assert!(get::<u8>(h3, Kind::Blend, "b").is_err());
        remove::<Probe>(h2, Kind::Query, "q").unwrap();
    }

    /// Holds a count on its `Arc` while the object lives.
    #[derive(Debug)]
    struct Probe(Arc<()>);

    fn remove_elsewhere(h: u64) {
        std::thread::spawn(move || remove::<Probe>(h, Kind::Query, "q").map(|(p, _)| drop(p)))
            .join()
            .unwrap()
            .unwrap();
    }

    #[test]
    fn a_handle_removed_on_another_thread_is_refused_and_its_object_freed_after_the_lend() {
        let alive = Arc::new(());
        let h = insert(Kind::Query, Owner::default(), Probe(alive.clone()));
        // Lent from this thread's cache (the second lookup hits it), then removed elsewhere.
        drop(lend::<Probe>(h, Kind::Query, "q").unwrap());
        let (lent, _) = lend::<Probe>(h, Kind::Query, "q").unwrap();
        remove_elsewhere(h);
        // The lend still reads a live object (the cache holds it): no use after free.
        assert_eq!(Arc::strong_count(&lent.0), 2);
        // A lookup while it is lent is refused with a stale handle's error, frees nothing.
        let stale = get::<Probe>(h, Kind::Query, "q").unwrap_err();
        assert_eq!(stale.status, SGX535_ERROR_INVALID_HANDLE);
        assert!(stale.msg.contains("not a live handle"), "{}", stale.msg);
        assert_eq!(Arc::strong_count(&alive), 2, "freed while lent");
        // The last lend of the thread ends: the object goes.
        drop(lent);
        assert_eq!(Arc::strong_count(&alive), 1, "kept after the lend");
        assert!(get::<Probe>(h, Kind::Query, "q").is_err());
    }

    #[test]
    fn an_object_removed_on_another_thread_goes_at_this_threads_next_lookup() {
        let alive = Arc::new(());
        let h = insert(Kind::Query, Owner::default(), Probe(alive.clone()));
        let other = insert(Kind::Query, Owner::default(), 7u32);
        assert!(get::<Probe>(h, Kind::Query, "q").is_ok());
        remove_elsewhere(h);
        // This thread's cache holds it until this thread looks anything up again.
        assert_eq!(Arc::strong_count(&alive), 2);
        assert_eq!(*get::<u32>(other, Kind::Query, "o").unwrap().0, 7);
        assert_eq!(
            Arc::strong_count(&alive),
            1,
            "the cache kept an object removed on another thread"
        );
        assert!(get::<Probe>(h, Kind::Query, "q").is_err());
        remove::<u32>(other, Kind::Query, "o").unwrap();
    }

    #[test]
    fn owned_objects_go_with_their_owner() {
        let owner = Owner {
            screen: 77,
            ctx: 78,
        };
        let a = insert(Kind::Blend, owner, 1u8);
        let b = insert(Kind::Blend, Owner { screen: 77, ctx: 0 }, 2u8);
        let gone = remove_owned(77, 78);
        assert_eq!(gone.len(), 1);
        assert!(get::<u8>(a, Kind::Blend, "a").is_err());
        assert!(get::<u8>(b, Kind::Blend, "b").is_ok());
        assert_eq!(remove_owned(77, 0).len(), 1);
        assert!(get::<u8>(b, Kind::Blend, "b").is_err());
    }

    /// Looks `h` up when its thread's locals are destroyed, and reports what the lend read.
    struct LookupAtExit {
        h: u64,
        seen: std::sync::mpsc::Sender<Option<u32>>,
    }

    impl Drop for LookupAtExit {
        fn drop(&mut self) {
            let lent = lend::<u32>(self.h, Kind::Query, "q").ok();
            let _ = self.seen.send(lent.as_ref().map(|(v, _)| **v));
        }
    }

    thread_local! {
        static AT_EXIT: RefCell<Option<LookupAtExit>> = const { RefCell::new(None) };
    }

    /// A call into the library from a thread-local destructor, with the thread's cache still
    /// there (its lend comes from the cache and goes back to it) and already gone (owned).
    #[test]
    fn a_lookup_while_the_thread_ends_reads_the_object() {
        let h = insert(Kind::Query, Owner::default(), 41u32);
        for cache_first in [true, false] {
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                // Thread locals are destroyed in the reverse order of their first use.
                if cache_first {
                    assert!(lend::<u32>(h, Kind::Query, "q").is_ok());
                }
                AT_EXIT.with(|a| *a.borrow_mut() = Some(LookupAtExit { h, seen: tx }));
                if !cache_first {
                    assert!(lend::<u32>(h, Kind::Query, "q").is_ok());
                }
            })
            .join()
            .unwrap();
            assert_eq!(
                rx.recv().unwrap(),
                Some(41),
                "cache made first: {cache_first}"
            );
        }
        remove::<u32>(h, Kind::Query, "q").unwrap();
    }
}
