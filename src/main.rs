fn main() {
    agent_canvas::start();
}
