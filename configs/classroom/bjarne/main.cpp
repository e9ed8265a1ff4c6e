// Starter bot for uttt-arena (Ultimate Tic-Tac-Toe), in C++17.
//
// It plays a random legal move. Make it better by editing choose_move() below:
// that is the only function you need to touch.
//
// Build:      g++ -std=c++17 -O2 -o starter starter.cpp
// Run it in a match:   arena match "bots/starters/cpp/starter" random
// Check it:            arena check "bots/starters/cpp/starter"
//
// How the bot talks to the arena (all of it is in protocol.md):
//   - The arena (the "referee") writes one line at a time to our standard input.
//   - We answer by printing lines to standard output, flushing after each one.
//   - Anything for humans (debugging!) goes to standard error (std::cerr),
//     never to standard output (std::cout).
//
// One file, standard library only.

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

const std::string BOT_NAME = "CppStarter";  // change me: shown in tournament tables
const std::string BOT_AUTHOR = "your name";  // change me too

// The random number generator, seeded by the arena at every new game so that
// every game can be replayed exactly. Use it instead of rand() or time(nullptr).
std::mt19937_64 rng;

// =============================================================================
//  WRITE YOUR STRATEGY HERE
// =============================================================================
//
//   legal   -- the squares you may play now, e.g. {"d4", "e4", "f4"}.
//              Never empty. Whatever you return MUST be one of these.
//   last    -- the move just played (usually your opponent's), e.g. "e5",
//              or "" if you make the very first move of the game.
//   history -- every move of the game so far, oldest first. X always moves
//              first, so history[0], history[2], ... are X's moves and
//              history[1], history[3], ... are O's.
//   time_ms -- milliseconds you have for this move. The clock started before
//              you got the request: answer well before it runs out.
//   my_mark -- 'X' or 'O'.
//
// Squares are a column a-i (left to right) and a row 1-9 (top to bottom) of the
// whole 9x9 grid: "a1" is the top-left corner, "e5" the very centre.
// board_and_cell() below turns a square into (board, cell) numbers.
std::string choose_move(const std::vector<std::string>& legal, const std::string& last,
                        const std::vector<std::string>& history, long time_ms, char my_mark) {
    // Ideas to try, from easy to hard:
    //   1. If a move wins a small board, play it.
    //   2. Don't send your opponent to a board where they can win.
    //   3. Search ahead (minimax), or play random games from each move and keep
    //      the move that wins most often (Monte Carlo).
    (void)last;  // unused for now; these casts keep the compiler quiet
    (void)history;
    (void)time_ms;
    (void)my_mark;
    std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
    return legal[pick(rng)];
}

// "h2" -> {3, 5}: the small board (1-9) and the cell inside it (1-9), both
// numbered in reading order (1 = top-left, 5 = centre, 9 = bottom-right).
// Your cell number is the board your opponent must play in next.
std::pair<int, int> board_and_cell(const std::string& square) {
    int column = square[0] - 'a';  // 0-8, left to right
    int row = square[1] - '1';     // 0-8, top to bottom
    int board = (row / 3) * 3 + column / 3 + 1;
    int cell = (row % 3) * 3 + column % 3 + 1;
    return {board, cell};
}

// =============================================================================
//  Talking to the arena. You should not need to change anything below.
// =============================================================================

// Writes one line to the arena. std::flush matters: without it the line may
// wait in a buffer and the arena never sees your move (you lose on time).
void send(const std::string& line) {
    std::cout << line << '\n' << std::flush;
    if (!std::cout) std::exit(0);  // the arena closed our output: stop quietly
}

// Debug output: goes to stderr, which the arena keeps in its logs. Never print
// debug text to std::cout: the arena would read it as your move.
void debug(const std::string& text) { std::cerr << "[" << BOT_NAME << "] " << text << std::endl; }

// "d4,e4,f4" -> {"d4", "e4", "f4"}; "none" or "" -> {}.
std::vector<std::string> squares(const std::string& text) {
    std::vector<std::string> out;
    if (text.empty() || text == "none") return out;
    std::stringstream list(text);
    std::string square;
    while (std::getline(list, square, ',')) out.push_back(square);
    return out;
}

// "100" -> 100; anything that is not a whole number -> fallback.
unsigned long long number(const std::string& text, unsigned long long fallback) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return fallback;
    try {
        return std::stoull(text);
    } catch (...) {  // too big
        return fallback;
    }
}

int main() {
#ifdef SIGPIPE
    // If the arena goes away, writing would kill us with SIGPIPE; ignore it and
    // notice the failed write in send() instead.
    std::signal(SIGPIPE, SIG_IGN);
#endif
    char my_mark = 'X';
    std::string line;

    // The arena sends one command per line. We read until it says `quit` or
    // closes our input (end of file).
    while (std::getline(std::cin, line)) {
        // "go time 100 last e5" -> words {go, time, 100, last, e5}
        //                      -> command "go", fields {time: 100, last: e5}
        std::istringstream split(line);
        std::vector<std::string> words;
        for (std::string word; split >> word;) words.push_back(word);
        if (words.empty()) continue;  // ignore empty lines
        const std::string& command = words[0];
        std::map<std::string, std::string> fields;
        for (std::size_t i = 1; i + 1 < words.size(); i += 2) fields[words[i]] = words[i + 1];
        // Later protocol versions may add fields: we only read the ones we
        // know, so unknown fields are ignored automatically. (fields["x"] is
        // "" when x is missing.)

        if (command == "uttt") {
            // Hello from the arena ("uttt 1"). Introduce ourselves, then `ready`.
            if (words.size() < 2 || words[1] != "1") debug("expected protocol version 1, got '" + line + "'");
            send("id name " + BOT_NAME);
            send("id author " + BOT_AUTHOR);
            send("ready");
        } else if (command == "newgame") {
            // A new game starts: reset everything that belongs to one game.
            // One process may play many games in a row.
            my_mark = fields["mark"] == "O" ? 'O' : 'X';
            rng.seed(number(fields["seed"], 0));
            debug(std::string("new game as ") + my_mark + " against " + fields["opponent"]);
        } else if (command == "go") {
            // Our turn: answer with exactly one square from `legal`.
            std::vector<std::string> legal = squares(fields["legal"]);
            if (legal.empty()) {  // never happens with a correct arena
                debug("no legal moves listed; resigning");
                send("resign");
                continue;
            }
            std::string last = fields["last"] == "none" ? "" : fields["last"];
            long time_ms = static_cast<long>(number(fields["time"], 0));
            send(choose_move(legal, last, squares(fields["moves"]), time_ms, my_mark));
        } else if (command == "gameover") {
            // No answer expected. Nice place to log how it went.
            debug("game over: result " + fields["result"] + " (" + fields["reason"] + ")");
        } else if (command == "quit") {
            break;
        } else {
            debug("ignoring unknown command: '" + line + "'");
        }
    }
    return 0;
}
