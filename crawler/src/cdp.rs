//! A small blocking Chrome DevTools Protocol client over one WebSocket: what the
//! renderer needs from Chromium and lightpanda (create a page, attach to it with a flat
//! session, answer paused requests while a command runs) and no more: commands carry ids,
//! events arriving while a command waits go to a handler that may answer them with further
//! commands (whose replies are read and dropped). (headless_chrome, used before, waits for
//! target events lightpanda does not send, and its generated protocol was the largest unit
//! of the build.)

use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::{Message, WebSocket};

/// A command a handler sends in answer to an event: method and parameters, on the session
/// the event came from.
pub type Reply = (&'static str, Value);

/// One CDP connection.
pub struct Cdp {
    ws: WebSocket<TcpStream>,
    next: u64,
}

impl std::fmt::Debug for Cdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Cdp(next id {})", self.next)
    }
}

impl Cdp {
    /// Opens the WebSocket at `ws://addr{path}` (`/` for lightpanda, Chromium's
    /// `/devtools/browser/ID`), retrying until `within` has passed (a server that is still
    /// starting refuses connections).
    pub fn connect(addr: SocketAddr, path: &str, within: Duration) -> Result<Cdp, String> {
        let end = Instant::now() + within;
        let stream = loop {
            match TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= end => return Err(format!("connect {addr}: {e}")),
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        };
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        // the handshake blocks (a busy browser answers late); then reads wake up often so
        // a call notices its deadline
        stream
            .set_read_timeout(Some(within.max(Duration::from_secs(1))))
            .map_err(|e| e.to_string())?;
        let (ws, _) = tungstenite::client(format!("ws://{addr}{path}"), stream)
            .map_err(|e| format!("WebSocket handshake with {addr}: {e}"))?;
        ws.get_ref()
            .set_read_timeout(Some(Duration::from_millis(200)))
            .map_err(|e| e.to_string())?;
        Ok(Cdp { ws, next: 1 })
    }

    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Result<u64, String> {
        let id = self.next;
        self.next += 1;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = s.into();
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .map_err(|e| format!("send {method}: {e}"))?;
        Ok(id)
    }

    /// Sends a command and waits for its result until `deadline`. Events that arrive
    /// meanwhile go to `on_event(method, params)`; the commands it returns are sent on the
    /// event's session.
    pub fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        deadline: Instant,
        on_event: &mut dyn FnMut(&str, &Value) -> Vec<Reply>,
    ) -> Result<Value, String> {
        let id = self.send(session, method, params)?;
        loop {
            if Instant::now() >= deadline {
                return Err(format!("{method}: timed out"));
            }
            let msg = match self.ws.read() {
                Ok(Message::Text(t)) => t,
                Ok(Message::Close(_)) => return Err(format!("{method}: connection closed")),
                Ok(_) => continue,
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    continue
                }
                Err(e) => return Err(format!("{method}: {e}")),
            };
            let v: Value = serde_json::from_str(msg.as_str())
                .map_err(|e| format!("{method}: unreadable message: {e}"))?;
            if let Some(got) = v.get("id").and_then(Value::as_u64) {
                if got != id {
                    continue; // the reply to a handler's command
                }
                if let Some(err) = v.get("error") {
                    return Err(format!(
                        "{method}: {}",
                        err.get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("error")
                    ));
                }
                return Ok(v.get("result").cloned().unwrap_or(Value::Null));
            }
            if let Some(m) = v.get("method").and_then(Value::as_str) {
                let s = v.get("sessionId").and_then(Value::as_str).map(String::from);
                let params = v.get("params").cloned().unwrap_or(Value::Null);
                for (rm, rp) in on_event(m, &params) {
                    self.send(s.as_deref(), rm, rp)?;
                }
            }
        }
    }

    /// [`Cdp::call`] without event handling (events are dropped).
    pub fn simple(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, String> {
        self.call(session, method, params, deadline, &mut |_, _| Vec::new())
    }
}
