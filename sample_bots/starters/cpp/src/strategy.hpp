// strategy.hpp: the one decision a bot makes.
#pragma once

#include "game.hpp"
#include "protocol.hpp"

namespace pinochle {

// Returns the reply to a `go` request: one of request.actions, or in an
// auction a bid from a range (Action::make_bid(n)); never a range itself.
Action choose(const Game& game, const Request& request);

}  // namespace pinochle
