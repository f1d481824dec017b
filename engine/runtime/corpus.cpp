// SPDX-License-Identifier: GPL-3.0-or-later
// The bundled training corpus: a few paragraphs of plain English written for
// this project (no third-party text), read as byte-level tokens. Small on
// purpose: the CPU backend trains tiny models for a handful of steps, and a
// tiny model learns its letter and word statistics quickly, so the loss falls.
#include "runtime/backend.h"

namespace headroom::rt {

const std::string& bundledCorpus()
{
    static const std::string text =
        "The river runs past the old mill and under the stone bridge, and the children of the village walk "
        "along its bank every morning on their way to school. In spring the water is high and brown, and it "
        "carries branches and leaves down from the hills. In summer it is low and clear, and you can see the "
        "small fish that hide between the stones. The miller says that the river has never frozen in his "
        "lifetime, but his grandmother told him of a winter when the ice was thick enough to walk on.\n"
        "A memory planner answers a simple question before a long job starts: will this fit? It lists every "
        "tensor the job will hold, when each one is made and when it is freed, and it adds up what is alive "
        "at each moment of the step. The largest of those sums is the peak. The weights are there from the "
        "start; the gradients appear during the backward pass; the optimizer keeps its state from one step "
        "to the next; the activations grow through the forward pass and shrink again as the backward pass "
        "consumes them. A good plan names the moment of the peak and what fills the memory then.\n"
        "The baker opens her shop before the sun rises. She mixes flour, water, salt and yeast, and she "
        "leaves the dough to rest while she lights the oven. The first loaves come out at six, and the smell "
        "of bread fills the street. People stop on their way to the station and buy a loaf, a roll, or a "
        "small sweet cake. By noon the shelves are almost empty, and the baker sits down with a cup of tea.\n"
        "To train a small model, take a batch of text, predict each next byte from the bytes before it, "
        "measure how wrong the predictions were, and nudge every weight a little in the direction that makes "
        "them less wrong. Do it again with the next batch. After a few dozen steps the model has learned that "
        "spaces follow words, that the letter e is common, and that a full stop is followed by a space and a "
        "capital letter. After many thousands of steps it begins to learn words, and then phrases.\n"
        "On the hill above the village there is a small observatory with a white dome. On clear nights the "
        "astronomer opens the dome and points the telescope at the planets. Jupiter shows its four bright "
        "moons, Saturn shows its rings, and the moon shows its craters and long shadows. Visitors climb the "
        "hill on Friday evenings, and the astronomer lets each of them look through the eyepiece for a minute.\n";
    return text;
}

} // namespace headroom::rt
